# Redis from Debian's package on the debootstrap base (no registry).
# Append-only file on: queued matches survive a Redis restart.
FROM gemarena-base:bookworm
RUN mkdir -p /data && chown redis:redis /data
VOLUME /data
EXPOSE 6379
USER redis
WORKDIR /data
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--dir", "/data", \
     "--appendonly", "yes", "--appendfsync", "everysec"]
