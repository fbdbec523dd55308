"""The room across processes (docs/cluster.md): workers own tables under leases with fencing
epochs on PostgreSQL and talk to the rest of the cluster through Redis."""
