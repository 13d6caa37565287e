"""Drop-in constructors for code written against other libraries (:mod:`ixplain.compat.ixai`)."""
