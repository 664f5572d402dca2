// An adapter module whose factory returns something that is not a ClientAdapter.
export const adapter = () => ({ name: 'half', description: 'half an adapter', revisions: ['2025-06-18'] });
