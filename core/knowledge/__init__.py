"""What a team shares beyond delegation (issue 9): project memory, the project context and
its proposals, and the FileGuard that serialises agents' writes to them. Pure: no I/O."""
