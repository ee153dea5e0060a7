import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/api/index.js';
import { SERVICE_ROUTES } from '../support/index.js';

/**
 * The OpenAPI document as GET /openapi.json serves it, pinned: clients are generated from it, so a
 * change to any operation, schema, description or their order must be made here on purpose. The
 * fixture is the document indented by two; the same object serialised without indentation is the
 * served text, so equal here means equal bytes there.
 */
const fixture = readFileSync(new URL('./openapi.json', import.meta.url), 'utf8');

describe('the OpenAPI document', () => {
  it('is byte for byte the pinned one', () => {
    expect(`${JSON.stringify(buildOpenApiDocument(SERVICE_ROUTES), null, 2)}\n`).toBe(fixture);
  });
});
