"""Running a room for real (layer ``ops``, under the command line): the configuration
(``feltroom.ops.config``), logging (``feltroom.ops.logs``) and backups (``feltroom.ops.backup``);
docs/operations.md."""
