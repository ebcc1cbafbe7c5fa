// Validates every object of the YAML files under a directory against the Kubernetes schemas
// (kubernetes-models, and @kubernetes-models/keda for KEDA's ScaledObject); prints one JSON line
// per object: { file, kind, name, error }. A child process of kubernetes.test.ts, because both
// packages are ES modules only and jest runs the tests as CommonJS.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';

interface Manifest {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
}
interface Validatable {
  validate(): void;
}
type ModelClass = new (data: unknown) => Validatable;

const PACKAGES: Record<string, string> = { 'keda.sh': '@kubernetes-models/keda' };

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry) ? [path] : [];
  });
}

async function modelOf(manifest: Manifest): Promise<ModelClass> {
  const apiVersion = manifest.apiVersion ?? '';
  const group = apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '';
  const module = `${PACKAGES[group] ?? 'kubernetes-models'}/${apiVersion}/${manifest.kind ?? ''}`;
  const loaded = (await import(module)) as Record<string, ModelClass | undefined>;
  const model = loaded[manifest.kind ?? ''];
  if (model === undefined) throw new Error(`no schema for ${apiVersion} ${manifest.kind ?? ''}`);
  return model;
}

const dir = process.argv[2] ?? '.';
for (const file of yamlFiles(dir)) {
  for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const manifest = document.toJS() as Manifest | null;
    if (manifest === null) continue;
    let error: string | null = null;
    try {
      if (document.errors.length > 0) throw new Error(document.errors[0]?.message);
      const Model = await modelOf(manifest);
      new Model(manifest).validate();
    } catch (caught) {
      error = caught instanceof Error ? caught.message : String(caught);
    }
    const name = manifest.metadata?.name ?? null;
    console.log(JSON.stringify({ file: relative(dir, file), kind: manifest.kind, name, error }));
  }
}
