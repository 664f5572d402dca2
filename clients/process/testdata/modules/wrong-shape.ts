// An adapter module whose default export is not a ClientAdapter: every member is wrong or missing.
export default { name: '', revisions: ['2025-06-18', '2099-01-01'], features: ['teleport'], start: 'yes', shutdown: 1 };
