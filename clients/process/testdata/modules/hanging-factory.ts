// An adapter module whose factory returns a promise that never settles.
export default () => new Promise(() => {});
