"""fa4 as the attention of other libraries (transformers.py: Hugging Face
transformers)."""
