/**
 * A refusal a client may see, thrown by a domain area (policies, anomalies, workflows): `status`,
 * `code` and `expose` let the API's error envelope show it as it is. Each area subclasses it with
 * its own name and codes.
 */
export class ClientError extends Error {
  override readonly name: string = 'ClientError';
  readonly expose = true;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
