/** The parts of an instance (event or API answer) that can name its job. */
export interface InstanceJobRef {
  readonly job_info?: { readonly id?: string | undefined } | undefined;
  readonly link?: string | undefined;
}

/** spec §4.3 / docs/platform-shapes.md: `…/conf/jobs/{job_id}/instances/{instance_id}`. */
const INSTANCE_PATH = /\/conf\/jobs\/([^/?#]+)\/instances\/([^/?#]+)\/?(?:[?#]|$)/;

/**
 * The job id of an instance: `job_info.id`, else the `{job_id}` segment of its `link`. Undefined
 * when neither says (the spec guarantees only the instance's id and name in a job_end event).
 */
export function jobIdOfInstance(instance: InstanceJobRef): string | undefined {
  const fromInfo = instance.job_info?.id?.trim();
  if (fromInfo) return fromInfo;
  const link = instance.link;
  if (link === undefined) return undefined;
  const match = INSTANCE_PATH.exec(link);
  const segment = match?.[1];
  if (segment === undefined) return undefined;
  try {
    const decoded = decodeURIComponent(segment);
    return decoded === 'ALL' || decoded === '' ? undefined : decoded;
  } catch {
    return undefined;
  }
}
