"""A tiny random Llama + byte-level BPE tokenizer, built at test time (~10 s).

Its text is random, but it is a real checkpoint: vLLM (and transformers) load it
like any hub model, so the generation backends run end to end on a CPU. The
LoRA adapter is written in PEFT's on-disk format by hand (no peft dependency),
with non-zero B matrices so that it really changes what the model generates.
"""

from __future__ import annotations

import json
from pathlib import Path

from linteval_ray.schema.record import LintEvalRecord

VOCAB_SIZE = 1024
HIDDEN = 64
LAYERS = 2
HEADS = 2
MAX_POSITIONS = 4096
LORA_RANK = 8
LORA_TARGETS = ("q_proj", "v_proj")
SPECIAL_TOKENS = ["<unk>", "<s>", "</s>", "<|system|>", "<|user|>", "<|assistant|>"]
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}</s>\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)

# Qwen3's switch: with enable_thinking false the template closes an empty reasoning block itself.
THINKING_TEMPLATE = CHAT_TEMPLATE.replace(
    "<|assistant|>\n{% endif %}",
    "<|assistant|>\n{% if enable_thinking is defined and not enable_thinking %}<think>\n\n</think>\n\n{% endif %}"
    "{% endif %}")


# A chat model's generation_config.json (Qwen2.5's has do_sample, temperature 0.7, top_p 0.8, top_k 20,
# repetition_penalty 1.05); the penalty is strong here so that applying it or not changes the tiny model's
# text. `vllm serve` applies these defaults where a request leaves a parameter unset.
GENERATION_DEFAULTS = {"do_sample": True, "temperature": 0.7, "top_p": 0.8, "top_k": 20, "repetition_penalty": 1.5}


def build_tiny_model(directory: Path, corpus: list[str]) -> Path:
    """Write the model, its generation_config.json and its tokenizer to ``directory`` (once) and return it."""
    if (directory / "config.json").exists():
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    _build_tokenizer(corpus).save_pretrained(directory)
    _build_model().save_pretrained(directory, safe_serialization=True)
    generation = json.loads((directory / "generation_config.json").read_text())
    (directory / "generation_config.json").write_text(json.dumps({**generation, **GENERATION_DEFAULTS}, indent=2))
    return directory


def hub_cache(cache: Path, model: Path, model_id: str) -> Path:
    """``model`` laid out as the Hugging Face cache holds a hub download of ``model_id`` (refs/main naming a
    snapshot whose files link to the folder's): with ``HF_HUB_CACHE=cache`` and ``HF_HUB_OFFLINE=1``,
    huggingface_hub, transformers and vLLM resolve ``model_id`` there as on a node that downloaded it."""
    repo = cache / f"models--{model_id.replace('/', '--')}"
    snapshot = repo / "snapshots" / ("0" * 40)
    snapshot.mkdir(parents=True, exist_ok=True)
    for file in model.iterdir():
        if not (snapshot / file.name).exists():
            (snapshot / file.name).symlink_to(file)
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / "main").write_text(snapshot.name)
    return cache


def build_lora_adapter(directory: Path, base_model: Path, zero: bool = False, dtype: str = "float32") -> Path:
    """Write a random rank-8 LoRA adapter on q_proj/v_proj in PEFT format (``zero``: B matrices
    all zero, a valid adapter that changes nothing, as a broken export would), its tensors of
    ``dtype`` (``bfloat16``: what most fine-tuning libraries save)."""
    if (directory / "adapter_config.json").exists():
        return directory
    import torch
    from safetensors.torch import save_file

    directory.mkdir(parents=True, exist_ok=True)
    generator = torch.Generator().manual_seed(7)
    kv_dim = HIDDEN // HEADS * _kv_heads()
    out_dims = {"q_proj": HIDDEN, "v_proj": kv_dim}
    tensors = {}
    for layer in range(LAYERS):
        for module in LORA_TARGETS:
            prefix = f"base_model.model.model.layers.{layer}.self_attn.{module}"
            tensors[f"{prefix}.lora_A.weight"] = torch.randn(LORA_RANK, HIDDEN, generator=generator)
            b = torch.randn(out_dims[module], LORA_RANK, generator=generator)
            tensors[f"{prefix}.lora_B.weight"] = torch.zeros_like(b) if zero else b
    save_file({name: t.to(getattr(torch, dtype)) for name, t in tensors.items()},
              str(directory / "adapter_model.safetensors"))
    config = {
        "peft_type": "LORA",
        "task_type": "CAUSAL_LM",
        "base_model_name_or_path": str(base_model),
        "r": LORA_RANK,
        "lora_alpha": 2 * LORA_RANK,
        "lora_dropout": 0.0,
        "target_modules": list(LORA_TARGETS),
        "bias": "none",
        "fan_in_fan_out": False,
        "modules_to_save": None,
        "use_rslora": False,
        "use_dora": False,
        "inference_mode": True,
    }
    (directory / "adapter_config.json").write_text(json.dumps(config, indent=2))
    return directory


def corpus_from_records(records: list[LintEvalRecord]) -> list[str]:
    """Training text for the tokenizer: programs and the prompt's English."""
    prose = "Revise the program so that these alerts go away. Return the whole revised file in one fenced code block."
    return [r.code for r in records] + [prose] * 4


def _kv_heads() -> int:
    return 1


def _build_tokenizer(corpus: list[str]):  # -> PreTrainedTokenizerFast
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus, trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        unk_token="<unk>",
        bos_token="<s>",
        eos_token="</s>",
        pad_token="</s>",
        chat_template=CHAT_TEMPLATE,
        model_max_length=MAX_POSITIONS,
    )


def _build_model():  # -> LlamaForCausalLM
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=VOCAB_SIZE,
        hidden_size=HIDDEN,
        intermediate_size=2 * HIDDEN,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        num_key_value_heads=_kv_heads(),
        max_position_embeddings=MAX_POSITIONS,
        tie_word_embeddings=True,
        bos_token_id=SPECIAL_TOKENS.index("<s>"),
        eos_token_id=SPECIAL_TOKENS.index("</s>"),
        torch_dtype="float32",
    )
    return LlamaForCausalLM(config).to(torch.float32)
