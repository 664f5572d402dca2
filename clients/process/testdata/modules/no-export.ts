// An adapter module that exports nothing an adapter can come from.
export const client = { name: 'not exported under a name the loader looks for' };
