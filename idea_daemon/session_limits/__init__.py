"""Session limits in the daemon (issue 10): detection, the held FIFO, the scheduled resume."""
