import { profilesArea } from '../../../src/areas/profiles';
import { useAreaServer } from './area-server';

describe('profiles area (spec §4.4)', () => {
  const call = useAreaServer(profilesArea);

  it('lists deposit profiles, filters by user group and reads one', async () => {
    const all = await call('GET', '/conf/deposit-profiles');
    const profiles = all.json.deposit_profile as { id: string; user_group: { value: string } }[];
    expect(all.json.total_record_count).toBe(4);
    const group = profiles[0]?.user_group.value ?? '';
    const filtered = await call('GET', `/conf/deposit-profiles?user_group=${group}`);
    const groups = (filtered.json.deposit_profile as typeof profiles).map(
      (p) => p.user_group.value,
    );
    expect(new Set(groups)).toEqual(new Set([group]));
    expect((await call('GET', `/conf/deposit-profiles/${profiles[0]?.id ?? ''}`)).status).toBe(200);
    // spec §4.4 lists no 400 for the read: an unknown id is a 404 (unknown path, §7 rule 7).
    expect((await call('GET', '/conf/deposit-profiles/NOPE')).status).toBe(404);
  });

  it('lists integration profiles by type and q, and reads one', async () => {
    const sis = await call('GET', '/conf/integration-profiles?type=SIS');
    const [profile] = sis.json.integration_profile as { id: string; name: string }[];
    expect(profile?.name).toBe('Campus SIS');
    const byName = await call('GET', '/conf/integration-profiles?q=name~erp');
    expect(byName.json.total_record_count).toBe(1);
    expect((await call('GET', `/conf/integration-profiles/${profile?.id ?? ''}`)).json.name).toBe(
      'Campus SIS',
    );
  });

  it('answers 40166404 for an unknown type, 40166410 for a bad q, 60304 for an unknown id', async () => {
    expect((await call('GET', '/conf/integration-profiles?type=FAX')).errorCode).toBe('40166404');
    expect((await call('GET', '/conf/integration-profiles?q=owner~x')).errorCode).toBe('40166410');
    expect((await call('GET', '/conf/integration-profiles?q=nonsense')).errorCode).toBe('40166410');
    expect((await call('GET', '/conf/integration-profiles/123')).errorCode).toBe('60304');
  });

  it('lists import profiles by type and ie_type; 402123 for bad values, 401871 for unknown ids', async () => {
    const all = await call('GET', '/conf/md-import-profiles');
    expect(all.json.total_record_count).toBe(5);
    const repo = await call('GET', '/conf/md-import-profiles?type=REPOSITORY&ie_type=ELECTRONIC');
    expect((repo.json.import_profile as { name: string }[]).map((p) => p.name)).toEqual([
      'OAI harvest',
    ]);
    expect((await call('GET', '/conf/md-import-profiles?type=X')).errorCode).toBe('402123');
    expect((await call('GET', '/conf/md-import-profiles?ie_type=X')).errorCode).toBe('402123');
    expect((await call('GET', '/conf/md-import-profiles/1')).errorCode).toBe('401871');
  });

  it('runs an FTP import profile through the deprecated op=run', async () => {
    const all = await call('GET', '/conf/md-import-profiles');
    const [ftp, , , upload] = all.json.import_profile as { id: string }[];
    const run = await call('POST', `/conf/md-import-profiles/${ftp?.id ?? ''}?op=run`);
    expect(run.status).toBe(200);
    expect(run.json.last_run).toBe('2025-03-12T10:00:00.000Z');
    // The row lists 401871 only; a missing op is §7 rule 2's invalid parameter value.
    expect((await call('POST', `/conf/md-import-profiles/${ftp?.id ?? ''}`)).errorCode).toBe(
      '40166410',
    );
    expect(
      (await call('POST', `/conf/md-import-profiles/${upload?.id ?? ''}?op=run`)).errorCode,
    ).toBe('402119');
    expect((await call('POST', '/conf/md-import-profiles/1?op=run')).errorCode).toBe('401871');
  });

  it('answers XML when asked', async () => {
    const reply = await call('GET', '/conf/md-import-profiles', { accept: 'application/xml' });
    expect(reply.text).toContain('<import_profiles total_record_count="5"><import_profile>');
  });
});
