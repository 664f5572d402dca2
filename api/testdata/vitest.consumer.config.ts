// The child vitest of api/vitest.test.ts: only the consumer file, with vitest's own defaults otherwise (as a user has).
import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['consumer.vitest.ts'], root: import.meta.dirname } });
