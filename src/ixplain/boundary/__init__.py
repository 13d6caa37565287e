"""The input boundary of the stream explainers: raw observations in, typed batches out.

* :class:`StreamInput` (:mod:`ixplain.boundary._input`) owns a stream's schema and turns any
  observation(s) into a :class:`~ixplain.storage.base.Batch` of canonical columns, once;
* :mod:`ixplain.boundary._labels` converts and refuses labels;
* :mod:`ixplain.boundary._checks` holds the value checks (numbers, dates, time zones) and the
  wording of their refusals.

Nothing behind the boundary (the explainers' loop, the samplers, the storages, the methods'
explanation functions) converts or checks raw input again.
"""

from ._input import StreamInput
from ._labels import as_labels, label_shape_failure, refuse_first_labels, refuse_labels

__all__ = ["StreamInput", "as_labels", "label_shape_failure", "refuse_first_labels",
           "refuse_labels"]
