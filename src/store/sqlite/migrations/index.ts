import { migration001 } from './001-initial-schema.js';
import { migration002 } from './002-policy-registry.js';
import { migration003 } from './003-anomalies.js';
import { migration004 } from './004-workflows.js';
import { migration005 } from './005-registry-audit-outbox.js';
import { migration006 } from './006-workflow-finishes.js';
import { migration007 } from './007-anomaly-transition-audit-outbox.js';
import { migration008 } from './008-anomaly-detection-audit-outbox.js';
import { migration009 } from './009-policy-rule-index.js';
import { migration010 } from './010-workflow-usage.js';
import { migration011 } from './011-anomaly-transition-request-ref.js';
import { migration012 } from './012-audit-linking.js';
import { migration013 } from './013-policy-rollouts.js';
import { migration014 } from './014-anomaly-open-index.js';
import { migration015 } from './015-workflow-summaries.js';
import { migration016 } from './016-webhooks.js';
import type { Migration } from './migration.js';

export type { Migration } from './migration.js';

/** In version order; `migrate` refuses a list with gaps or repeats. */
export const MIGRATIONS: readonly Migration[] = [migration001, migration002, migration003, migration004, migration005, migration006, migration007, migration008, migration009, migration010, migration011, migration012, migration013, migration014, migration015, migration016];
