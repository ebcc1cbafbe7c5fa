import { pipeline } from 'node:stream';
import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import { instanceFilter } from '../jobs/instance-query';
import { JOB_CATEGORIES, JOB_ID_FORMAT, JOB_TYPES } from '../jobs/job-catalog';
import type { JobCategory, JobDefinition, JobType } from '../jobs/job-catalog';
import { countersOf, stateAt } from '../jobs/job-instance';
import type { JobInstance } from '../jobs/job-instance';
import type { JobStore } from '../jobs/job-store';
import { instanceLink, instanceView, jobView } from '../jobs/instance-view';
import { sisEventsOf } from '../jobs/sis-events';
import { checkSubmit } from '../jobs/submit-rules';
import { INVALID_PARAMETER_VALUE } from '../list-query';
import { createMarcStream } from '../marc/marc-stream';
import { sendBody, sendList } from '../respond';
import type { SandboxArea, SandboxContext } from '../sandbox-context';
import { badRequest } from '../sandbox-error';

const INSTANCE_ID_FORMAT = /^\d{1,20}$/;
const Category = z.enum(Object.keys(JOB_CATEGORIES) as [JobCategory, ...JobCategory[]]);
const Type = z.enum(Object.keys(JOB_TYPES) as [JobType, ...JobType[]]);
const DownloadFormat = z.enum(['XML', 'BINARY']);

/**
 * Jobs, job instances, their download and events (spec §4.3, limits §8). The rule checks of the
 * submit are in jobs/submit-rules.ts; the codes and the order are documented in docs/jobs.md.
 */
export function createJobsArea(store: JobStore): SandboxArea {
  return (router, ctx) => {
    const jobs: Jobs = { store, ctx };
    router.get('/conf/jobs', listJobs(jobs));
    router.get('/conf/jobs/:job_id', (req, res) => {
      sendBody(req, res, jobView(jobOf(store, req), ctx.publicBaseUrl()), { xmlRoot: 'job' });
    });
    router.post('/conf/jobs/:job_id', submitJob(jobs));
    router.get('/conf/jobs/:job_id/instances', listInstances(jobs));
    router.get('/conf/jobs/:job_id/instances/:instance_id', (req, res) => {
      const view = instanceView(instanceOf(store, req), ctx.now(), ctx.publicBaseUrl());
      sendBody(req, res, view, { xmlRoot: 'job_instance' });
    });
    router.get('/conf/jobs/:job_id/instances/:instance_id/download', downloadRecords(jobs));
    router.get('/conf/jobs/:job_id/instances/:instance_id/events', (req, res) => {
      const instance = instanceOf(store, req);
      // spec §4.3: instance events only for jobs of category and type USERS/SIS, read as a USERS
      // job that is a SIS job (job-catalog.ts `sis`); SIS is no job type.
      if (instance.job.category !== 'USERS' || instance.job.sis !== true) {
        throw badRequest('60332', 'Only USERS/SIS jobs are supported');
      }
      sendList(req, res, sisEventsOf(instance, ctx.now()), { itemKey: 'event' });
    });
  };
}

/** What the jobs area's handlers share: the job store (also the admin routes') and the context. */
interface Jobs {
  readonly store: JobStore;
  readonly ctx: SandboxContext;
}

function listJobs({ store, ctx }: Jobs): RequestHandler {
  return (req, res) => {
    const category = optionalEnum(Category, req.query.category, 'category');
    const type = optionalEnum(Type, req.query.type, 'type');
    const profileId = typeof req.query.profile_id === 'string' ? req.query.profile_id : '';
    const jobs = store
      .jobs()
      .filter((job) => category === undefined || job.category === category)
      .filter((job) => type === undefined || job.type === type)
      .filter((job) => profileId === '' || job.profileId === profileId);
    sendList(
      req,
      res,
      jobs.map((job) => jobView(job, ctx.publicBaseUrl())),
      { itemKey: 'job' },
    );
  };
}

function submitJob({ store, ctx }: Jobs): RequestHandler {
  return (req, res) => {
    const job = jobOf(store, req);
    checkSubmit(store, job, { op: req.query.op, body: req.body }, ctx.now());
    const instance = store.run(job, { submittedBy: 'api' });
    const link = instanceLink(ctx.publicBaseUrl(), instance);
    const body = {
      ...jobView(job, ctx.publicBaseUrl()),
      additional_info: {
        value: `Job no. ${instance.id} triggered on ${instance.submitTime.toISOString()}`,
        link,
      },
    };
    sendBody(req, res, body, { xmlRoot: 'job' });
  };
}

function listInstances({ store, ctx }: Jobs): RequestHandler {
  return (req, res) => {
    const job = jobOf(store, req);
    const matches = instanceFilter(req.query, ctx.now());
    const instances = store.instances(job.id).filter(matches);
    const base = ctx.publicBaseUrl();
    sendList(
      req,
      res,
      instances.map((instance) => instanceView(instance, ctx.now(), base)),
      {
        itemKey: 'job_instance',
      },
    );
  };
}

/** The records of an ended import run, streamed as MARC XML or binary MARC. */
function downloadRecords({ store, ctx }: Jobs): RequestHandler {
  return (req, res, next) => {
    const instance = instanceOf(store, req);
    const format =
      optionalEnum(DownloadFormat, req.query.download_format, 'download_format') ?? 'XML';
    const lineType =
      typeof req.query.line_type === 'string' && req.query.line_type !== ''
        ? req.query.line_type
        : 'TOTAL_RECORDS_IMPORTED';
    const count = downloadCount(instance, lineType, ctx.now());
    res.status(200).type(format === 'XML' ? 'application/xml' : 'application/octet-stream');
    res.setHeader(
      'Content-Disposition',
      `attachment; filename="${instance.id}-${lineType}.${format === 'XML' ? 'xml' : 'mrc'}"`,
    );
    const seedText = `${String(ctx.institution.code)}:${instance.id}:${lineType}`;
    pipeline(createMarcStream({ format, count, seedText }), res, (error) => {
      // A client that hangs up mid-download is not a server error.
      if (error && !res.destroyed && !res.headersSent) next(error);
    });
  };
}

function jobOf(store: JobStore, req: Request): JobDefinition {
  return findJob(store, param(req, 'job_id'));
}

function instanceOf(store: JobStore, req: Request): JobInstance {
  const jobId = param(req, 'job_id');
  const job = jobId === 'ALL' ? undefined : findJob(store, jobId);
  return findInstance(store, param(req, 'instance_id'), job);
}

function param(req: Request, name: string): string {
  const value: unknown = req.params[name];
  return typeof value === 'string' ? value : '';
}

function findJob(store: JobStore, jobId: string): JobDefinition {
  if (!JOB_ID_FORMAT.test(jobId)) throw badRequest('402215', `Bad job id format: ${jobId}`);
  const job = store.job(jobId);
  if (!job) throw badRequest('402216', `Invalid job id: ${jobId}`);
  return job;
}

function findInstance(
  store: JobStore,
  instanceId: string,
  job: JobDefinition | undefined,
): JobInstance {
  const instance = INSTANCE_ID_FORMAT.test(instanceId) ? store.instance(instanceId) : undefined;
  if (!instance || (job !== undefined && instance.job.id !== job.id)) {
    throw badRequest('402218', `Invalid instance id: ${instanceId}`);
  }
  return instance;
}

function optionalEnum<T extends string>(
  schema: z.ZodType<T>,
  raw: unknown,
  name: string,
): T | undefined {
  if (raw === undefined || raw === '') return undefined;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw badRequest(INVALID_PARAMETER_VALUE, `Invalid ${name}: ${String(raw)}`);
  return parsed.data;
}

/**
 * How many records the download holds: the value of the `line_type` counter of an ended
 * metadata-import run. Anything else is 40166410 (the spec lists no code for it).
 */
function downloadCount(instance: JobInstance, lineType: string, now: Date): number {
  if (instance.job.category !== 'IMPORT') {
    throw badRequest(
      INVALID_PARAMETER_VALUE,
      `Download is only for metadata import jobs: ${instance.job.id}`,
    );
  }
  const state = stateAt(instance, now);
  if (!state.endTime) {
    throw badRequest(INVALID_PARAMETER_VALUE, `Instance has not ended: ${instance.id}`);
  }
  const counter = countersOf(instance, state.progress).find(
    (candidate) => candidate.type === lineType,
  );
  if (!counter) {
    throw badRequest(INVALID_PARAMETER_VALUE, `Invalid line_type for this instance: ${lineType}`);
  }
  return counter.value;
}
