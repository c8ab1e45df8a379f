"""Publishing: put what a run produced where a reader asked, without losing their files."""
