#!/bin/sh
# First start: initdb in $PGDATA and create POSTGRES_USER / POSTGRES_DB with
# POSTGRES_PASSWORD. Every start: run postgres in the foreground as postgres.
set -eu
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
: "${POSTGRES_USER:=gemarena}" "${POSTGRES_DB:=gemarena}"
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
chown -R postgres:postgres "$PGDATA" /run/postgresql
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile=$(mktemp) && printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile" && chown postgres "$pwfile"
    su postgres -s /bin/sh -c "$bin/initdb -D '$PGDATA' --auth-local=peer --auth-host=scram-sha-256 \
        --username=postgres --encoding=UTF8 --locale=C.UTF-8" >/dev/null
    echo "host all all 0.0.0.0/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
    echo "host all all ::/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
    su postgres -s /bin/sh -c "$bin/pg_ctl -D '$PGDATA' -o '-c listen_addresses=' -w start" >/dev/null
    su postgres -s /bin/sh -c "psql -v ON_ERROR_STOP=1 -q" <<SQL
CREATE ROLE "$POSTGRES_USER" LOGIN PASSWORD '$(sed "s/'/''/g" "$pwfile")';
CREATE DATABASE "$POSTGRES_DB" OWNER "$POSTGRES_USER";
SQL
    rm -f "$pwfile"
    su postgres -s /bin/sh -c "$bin/pg_ctl -D '$PGDATA' -m fast -w stop" >/dev/null
fi
exec su postgres -s /bin/sh -c "exec $bin/postgres -D '$PGDATA' -c listen_addresses='*'"
