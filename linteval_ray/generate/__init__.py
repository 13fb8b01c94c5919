"""Generation backends: replay, vLLM (ray.data.llm), OpenAI-compatible endpoint."""
