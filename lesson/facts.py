"""Published sizes of real models, shown beside the lesson's own numbers.

They are facts about released models, not knobs: no lesson parameter changes them.
"""

# GPT-2's learned position table: n_positions × n_embd in its released config. Its
# 1,024 rows are also the longest text it reads at once.
GPT2_POSITIONS = 1024
GPT2_WIDTH = 768

# The original Transformer's model width (Vaswani et al. 2017, base model).
PAPER_WIDTH = 512


# RoPE in released models: rope_theta, the scaling rule (transformers' rope_scaling keys)
# and the lengths, from each model's paper or published config.json. The head width is
# that of the rotated part of a head.
ROPE_CONFIGS = (
    {
        "model": "Llama 2",
        "source": "Touvron et al. 2023",
        "rope_theta": 10000.0,
        "head_dim": 128,
        "scaling": None,
        "trained": 4096,
        "reads": 4096,
    },
    {
        "model": "Code Llama",
        "source": "Rozière et al. 2023",
        "rope_theta": 1_000_000.0,
        "head_dim": 128,
        "scaling": None,
        "trained": 16384,
        "reads": 16384,
    },
    {
        "model": "Llama 3.1",
        "source": "meta-llama/Llama-3.1-8B config.json",
        "rope_theta": 500_000.0,
        "head_dim": 128,
        "scaling": {
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
        "trained": 8192,
        "reads": 131072,
    },
    {
        "model": "gpt-oss",
        "source": "openai/gpt-oss-20b config.json",
        "rope_theta": 150_000.0,
        "head_dim": 64,
        "scaling": {
            "rope_type": "yarn",
            "factor": 32.0,
            "beta_fast": 32.0,
            "beta_slow": 1.0,
            "truncate": False,
            "original_max_position_embeddings": 4096,
        },
        "trained": 4096,
        "reads": 131072,
    },
    {
        "model": "DeepSeek-V3",
        "source": "deepseek-ai/DeepSeek-V3 config.json",
        "rope_theta": 10000.0,
        "head_dim": 64,
        "scaling": {
            "rope_type": "yarn",
            "factor": 40.0,
            "beta_fast": 32.0,
            "beta_slow": 1.0,
            "mscale": 1.0,
            "mscale_all_dim": 1.0,
            "original_max_position_embeddings": 4096,
        },
        "trained": 4096,
        "reads": 163840,
    },
)
