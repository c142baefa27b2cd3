# PostgreSQL from Debian's package on the debootstrap base (no registry).
FROM gemarena-base:bookworm
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
RUN chmod 755 /usr/local/bin/postgres-entrypoint.sh \
 && mkdir -p /var/lib/postgresql/data /run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /run/postgresql
ENV PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
EXPOSE 5432
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/postgres-entrypoint.sh"]
