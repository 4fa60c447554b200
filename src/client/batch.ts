// Batch gets for any number of keys: the API takes a bounded list per request, so the keys are
// de-duplicated, cut into chunks and sent a few at once under one deadline, and the answers put
// back together in the order the keys were asked for.
import type { BatchKind, KINDS } from "../api/kinds";
import { type CallInput, type CallOptions, type CallResult, createDeadline } from "./call";

export type BatchEndpointName = (typeof KINDS)[BatchKind]["batch"];
export type BatchRecord<N extends BatchEndpointName> = CallResult<N>["items"][number];

/** Chunks of one batch get that run at once. */
const BATCH_CONCURRENCY = 4;

/**
 * A batch get for any number of keys: de-duplicated, sent in chunks of batchSize (a few at
 * once, all under one deadline, by default a new one of timeoutMs), results in the order of each
 * key's first occurrence; keys the API did not return are reported in `missing`, never as an error.
 */
export async function batchGet<N extends BatchEndpointName>(
  call: <M extends BatchEndpointName>(
    name: M,
    input: CallInput<M>,
    options: CallOptions,
  ) => Promise<CallResult<M>>,
  name: N,
  keys: readonly string[],
  options: CallOptions | undefined,
  limits: { batchSize: number; timeoutMs: number },
): Promise<{ items: BatchRecord<N>[]; missing: string[] }> {
  const { batchSize, timeoutMs } = limits;
  const byCode = name === "batchGetStandards";
  const unique = [...new Set(keys)];
  if (unique.length === 0) return { items: [], missing: [] };
  const shared: CallOptions = { ...options, deadline: options?.deadline ?? createDeadline(timeoutMs) };

  const chunks: string[][] = [];
  for (let i = 0; i < unique.length; i += batchSize) chunks.push(unique.slice(i, i + batchSize));

  const found = new Map<string, BatchRecord<N>>();
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < chunks.length) {
      const chunk = chunks[next++] as string[];
      const body = byCode ? { codes: chunk } : { ids: chunk };
      let result: { items: BatchRecord<N>[] };
      try {
        result = (await call(name as BatchEndpointName, { body } as never, shared)) as typeof result;
      } catch (error) {
        failed = true; // the other workers start no further chunk
        throw error;
      }
      for (const item of result.items) {
        const key = byCode ? (item as { code: string }).code : (item as { id: string }).id;
        if (!found.has(key)) found.set(key, item);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, chunks.length) }, worker));

  const items: BatchRecord<N>[] = [];
  const missing: string[] = [];
  for (const key of unique) {
    const item = found.get(key);
    if (item === undefined) missing.push(key);
    else items.push(item);
  }
  return { items, missing };
}
