/**
 * Audit actors the service names itself, by prefix: a signed request (`signed:<tenant>`), a trusted
 * gateway's request (`gateway:<role>`), the service's own jobs (`system:anomaly-detect`…) and a
 * workflow's steps (`workflow:<id>`). No caller's subject may look like one, or the audit trail
 * could not tell who acted.
 */
export const SERVICE_ACTOR_PREFIXES = {
  signed: 'signed:',
  gateway: 'gateway:',
  system: 'system:',
  workflow: 'workflow:',
} as const;

/**
 * True when `subject` reads as a service actor to a person: compared without regard to case,
 * spaces and invisible format characters (a zero-width space in front changes nothing on screen).
 */
export function looksLikeServiceActor(subject: string): boolean {
  const seen = subject.replace(/[\s\p{Cf}]/gu, '').toLowerCase();
  return Object.values(SERVICE_ACTOR_PREFIXES).some((prefix) => seen.startsWith(prefix));
}
