// An adapter module that throws while it is imported, before it exports anything.
throw new Error('hostile module: cannot load');
