// An adapter module whose factory throws.
export default function adapter(): never {
  throw new Error('no client configured');
}
