// An adapter module that does not parse.
export default {{;
