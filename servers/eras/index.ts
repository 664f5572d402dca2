// Every era's backend factory.
import type { Era, EraFactory } from '../era.ts';
import { httpSseEra } from './http-sse.ts';
import { dualEra } from './dual.ts';
import { modernEra } from './modern.ts';
import { statelessEra } from './stateless.ts';
import { streamableHttpEra } from './streamable-http.ts';

export const ERA_FACTORIES: Record<Era, EraFactory> = {
  '2024-11-05': httpSseEra(),
  '2025-03-26': streamableHttpEra('2025-03-26'),
  '2025-06-18': streamableHttpEra('2025-06-18'),
  '2025-11-25': streamableHttpEra('2025-11-25'),
  '2026-07-28': modernEra(),
  dual: dualEra(),
  stateless: statelessEra(),
};
