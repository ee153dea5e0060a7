/**
 * Deploys the demo modules through `POST /api/v1/policies` (with their test cases), each version
 * only when no stored version of the module has its source: a second run deploys nothing.
 */
import { createHash } from 'node:crypto';
import type { CliIo } from '../cli-io.js';
import type { DemoModule } from './demo-library.js';
import { ServiceAnswerError, type ServiceApi } from './service-api.js';

interface StoredVersion {
  version: number;
  builtin: boolean;
  sourceHash: string;
}

interface Page<T> {
  content: T[];
  totalPages: number;
}

/** The registry's largest page. */
const PAGE_SIZE = 100;

/** The module's stored versions; none for a module the tenant never deployed (404). */
async function storedVersions(api: ServiceApi, policyModule: string): Promise<StoredVersion[]> {
  const versions: StoredVersion[] = [];
  for (let page = 0; ; page += 1) {
    let answer: Page<StoredVersion>;
    try {
      answer = await api.call<Page<StoredVersion>>('GET', `/api/v1/policies/${encodeURIComponent(policyModule)}/versions?page=${page}&size=${PAGE_SIZE}`);
    } catch (error) {
      if (error instanceof ServiceAnswerError && error.status === 404) return versions;
      throw error;
    }
    versions.push(...answer.content.filter((version) => !version.builtin));
    if (page + 1 >= answer.totalPages) return versions;
  }
}

/** Each demo version's number, by file: the stored one with the same source, or the one deployed now. */
export async function ensureDeployed(api: ServiceApi, module: DemoModule, io: CliIo): Promise<Map<string, number>> {
  const stored = await storedVersions(api, module.policyModule);
  const numbers = new Map<string, number>();
  for (const demo of module.versions) {
    const hash = createHash('sha256').update(demo.source, 'utf8').digest('hex');
    const existing = stored.find((version) => version.sourceHash === hash);
    if (existing !== undefined) {
      numbers.set(demo.file, existing.version);
      io.out(`  ${module.policyModule}@${existing.version} (${demo.file}.policy) is deployed already`);
      continue;
    }
    const deployed = await api.call<{ version: number }>('POST', '/api/v1/policies', { source: demo.source, tests: demo.tests });
    numbers.set(demo.file, deployed.version);
    io.out(`  deployed ${module.policyModule}@${deployed.version} (${demo.file}.policy) after its test cases passed`);
  }
  return numbers;
}
