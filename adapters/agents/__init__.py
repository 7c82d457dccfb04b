"""Agent content shipped with idea: the built-in profile catalogue and the team pack."""
