// `deep-research extract <url-or-file>`: fetch and parse alone, exactly as a research run would.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppConfig } from '../config/schema';
import { SafeFetcher } from '../fetching/fetcher';
import { parseAllowList } from '../fetching/guard';
import { kindOf, parseDocument, type ParsedDocument } from '../parsing';
import { contentTypeForFile } from '../providers/search/local';

export interface Extraction extends ParsedDocument {
  url: string;
  final_url: string;
  content_type: string;
  bytes: number;
}

export async function extract(target: string, config: AppConfig, env: NodeJS.ProcessEnv = process.env): Promise<Extraction> {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(target) || /^file:/i.test(target)) {
    const file = path.resolve(target.replace(/^file:\/\//i, ''));
    const contentType = contentTypeForFile(file) ?? 'text/plain';
    const bytes = await readFile(file);
    const doc = await parseDocument(bytes, contentType, `file://${file}`);
    return { ...doc, url: `file://${file}`, final_url: `file://${file}`, content_type: contentType, bytes: bytes.length };
  }
  const fetcher = new SafeFetcher({
    userAgent: config.fetch.user_agent,
    timeoutMs: config.fetch.timeout_seconds * 1000,
    connectTimeoutMs: config.fetch.connect_timeout_seconds * 1000,
    maxBytes: config.fetch.max_bytes,
    maxRedirects: config.fetch.max_redirects,
    allow: parseAllowList(config.fetch.allow_hosts, env.FETCH_ALLOW_HOSTS),
    respectRobots: config.fetch.respect_robots,
    perHostConcurrency: config.fetch.per_host_concurrency,
    minHostGapMs: config.fetch.min_host_gap_ms,
  });
  try {
    const res = await fetcher.fetch(target, new AbortController().signal);
    const doc = await parseDocument(res.body, res.contentType, res.finalUrl);
    return { ...doc, url: target, final_url: res.finalUrl, content_type: res.contentType || (kindOf('', res.finalUrl) ?? ''), bytes: res.body.length };
  } finally {
    await fetcher.close();
  }
}
