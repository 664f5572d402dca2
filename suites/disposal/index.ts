import type { Scenario } from '../scenario.ts';
import { deleteIssuedSession } from './delete-issued-session.ts';

export const DISPOSAL: readonly Scenario[] = [deleteIssuedSession];
