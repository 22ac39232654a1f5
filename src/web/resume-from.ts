/** Where a reconnecting reader resumes: its `Last-Event-ID` header, else an `after` query parameter. */
export function resumeFrom(lastEventId: string | null | undefined, url: string | undefined): string | undefined {
  if (lastEventId !== null && lastEventId !== undefined && lastEventId.trim() !== '') return lastEventId.trim();
  if (url === undefined) return undefined;
  const after = new URL(url, 'http://localhost').searchParams.get('after');
  return after === null || after === '' ? undefined : after;
}
