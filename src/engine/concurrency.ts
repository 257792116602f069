/**
 * Runs `fn` over `items` with at most `limit` in flight, keeping results in
 * input order. `onDone` sees each result as it completes (for progress lines).
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  onDone?: (result: R, index: number) => void,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length) {
      const index = next++;
      const result = await fn(items[index]!, index);
      results[index] = result;
      onDone?.(result, index);
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
