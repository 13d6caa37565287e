"""ixai's ``ixai.utils``: the model wrappers (:mod:`ixplain.compat.ixai.utils.wrappers`)."""
