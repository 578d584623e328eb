"""sikpan bot: the imperative shell (CLI, chat adapters, storage, scheduler) around ``engine``."""
