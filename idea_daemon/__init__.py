"""The idea daemon: owns PTYs, emulators, layouts and projects; never imports Textual."""
