"""``linteval-ray calibrate``: how far our lint settings are from the dataset's recorded alerts.

Re-lints every original of a split with a lint profile and compares the result with the
row's recorded ``linter_messages`` by message identity (multisets): per language and tool,
samples in exact agreement, recall, precision and the checks only one side reports
(``agreement``). ``--derive OUT`` writes a profile that enables exactly the checks the
recorded alerts show (``derive``) and reports its agreement too (``command``).
"""

from linteval_ray.calibrate.agreement import CalibrationReport, ToolAgreement, compare
from linteval_ray.calibrate.derive import derive_profile

__all__ = ["CalibrationReport", "ToolAgreement", "compare", "derive_profile"]
