/** W4: cache-key cost. The cache is not built yet; a later issue fills this in. */
export async function runW4(): Promise<void> {
  console.log('\nW4 cache key: n/a (cache not built yet)');
}
