from idea_daemon.main import main

raise SystemExit(main())
