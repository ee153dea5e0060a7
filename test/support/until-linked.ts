/**
 * An answer's audit record is stored before the answer leaves and linked into the chain just after,
 * by the tenant's linker (in another process, possibly, or after a dead holder's lease). A test that
 * reads the chain after answers first waits for the link: polls `unlinked` (how many of the
 * tenant's records wait, from the store or GET /api/v1/audit/verify) until none does or `timeoutMs`
 * has passed, and returns how many still wait, for the test to require 0.
 */
export async function untilLinked(unlinked: () => Promise<number>, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const waiting = await unlinked();
    if (waiting === 0 || Date.now() >= deadline) return waiting;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
