"""Generation backends: prompt rows in, response rows out (``base.GenerationBackend``).

Importing the package registers every backend (``registry.py``), as ``ray.data.llm`` imports its
processors: each module is light to import (the model libraries load inside Ray's actors).
"""

from linteval_ray.generate import endpoint, replay, vllm  # noqa: F401 - each registers itself
