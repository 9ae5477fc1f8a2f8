"""Published sizes of real models, shown beside the lesson's own numbers.

They are facts about released models, not knobs: no lesson parameter changes them.
"""

# GPT-2's learned position table: n_positions × n_embd in its released config. Its
# 1,024 rows are also the longest text it reads at once.
GPT2_POSITIONS = 1024
GPT2_WIDTH = 768

# The original Transformer's model width (Vaswani et al. 2017, base model).
PAPER_WIDTH = 512
