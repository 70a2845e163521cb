import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The jars of a real Apache Kafka 3.9.2 broker, fetched once with Maven into a
 * cache folder shared by every test worker and benchmark. Maven (not the
 * release tarball) because it is already here, resolves the exact dependency
 * set and reuses ~/.m2; reload4j is added because the kafka_2.13 POM leaves the
 * slf4j binding to the distribution, and without one the broker logs nothing.
 */
export const KAFKA_VERSION = '3.9.2';

const DEPENDENCIES = [
  ['org.apache.kafka', 'kafka_2.13', KAFKA_VERSION],
  ['org.slf4j', 'slf4j-reload4j', '1.7.36'],
  ['ch.qos.reload4j', 'reload4j', '1.2.25'],
] as const;

/** Written last, so a fetch cut short is never taken for a complete one. */
const MARKER = '.complete';
/** A lock older than this belongs to a fetch that died; Maven takes seconds, not minutes. */
const STALE_LOCK_MS = 10 * 60_000;

export function kafkaCacheDir(): string {
  return process.env.PCG_KAFKA_CACHE ?? join(homedir(), '.cache', 'pcg', `kafka-${KAFKA_VERSION}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The folder holding the broker's jars (every jar in it belongs on the classpath); fetches them on first use. */
export async function ensureKafkaJars(): Promise<string> {
  const cache = kafkaCacheDir();
  const libs = join(cache, 'libs');
  if (existsSync(join(cache, MARKER))) return libs;
  mkdirSync(dirname(cache), { recursive: true });
  // mkdir is atomic: the one worker that creates the lock fetches, the others wait for the marker.
  const lock = `${cache}.lock`;
  const deadline = Date.now() + 2 * STALE_LOCK_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (existsSync(join(cache, MARKER))) return libs;
    const age = (() => {
      try {
        return Date.now() - statSync(lock).mtimeMs;
      } catch {
        return 0; // released between our mkdir and stat: try again
      }
    })();
    if (age > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
    else if (Date.now() > deadline) throw new Error(`waited too long for ${lock} (another fetch of the Kafka jars)`);
    await sleep(250);
  }
  try {
    if (existsSync(join(cache, MARKER))) return libs;
    await fetchJars(libs);
    writeFileSync(join(cache, MARKER), DEPENDENCIES.map((d) => d.join(':')).join('\n') + '\n');
    return libs;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function fetchJars(libs: string): Promise<void> {
  // A partial folder from an interrupted fetch may hold jars of another version: start clean.
  rmSync(libs, { recursive: true, force: true });
  mkdirSync(libs, { recursive: true });
  const project = mkdtempSync(join(tmpdir(), 'pcg-kafka-pom-'));
  const deps = DEPENDENCIES.map(
    ([g, a, v]) => `    <dependency><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version></dependency>`,
  ).join('\n');
  writeFileSync(
    join(project, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>pcg.test</groupId><artifactId>kafka-broker-jars</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
${deps}
  </dependencies>
</project>
`,
  );
  try {
    await promisify(execFile)('mvn', ['-q', '-B', 'dependency:copy-dependencies', `-DoutputDirectory=${libs}`], {
      cwd: project,
      timeout: 600_000,
      maxBuffer: 64 << 20,
    });
  } catch (e) {
    const { stdout = '', stderr = '' } = e as { stdout?: string; stderr?: string };
    throw new Error(`fetching the Kafka ${KAFKA_VERSION} jars with Maven failed: ${(e as Error).message}\n${stdout}${stderr}`.trim());
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}
