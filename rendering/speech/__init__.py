"""Speech: the voice engines, the Chinese front end and listening to what was made."""
