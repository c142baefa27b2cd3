# Web, worker and beat: one image, three commands (deploy/compose.yaml).
# Built by deploy/images/build-images.sh from a context holding the project's
# sources and its dependencies as wheels; needs no network.
FROM gemarena-base:bookworm
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    DJANGO_SETTINGS_MODULE=config.settings \
    GEMARENA_VAR_DIR=/var/lib/gemarena \
    PATH=/opt/gemarena/venv/bin:/usr/sbin:/usr/bin:/sbin:/bin
COPY wheels /tmp/wheels
RUN python3 -m venv /opt/gemarena/venv \
 && /opt/gemarena/venv/bin/pip install --no-index --find-links /tmp/wheels --no-cache-dir \
        /tmp/wheels/*.whl \
 && rm -rf /tmp/wheels \
 && groupadd --system --gid 10001 gemarena \
 && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/gemarena gemarena \
 && mkdir -p /var/lib/gemarena/beat && chown -R gemarena:gemarena /var/lib/gemarena
COPY . /opt/gemarena/app
WORKDIR /opt/gemarena/app
# static files are part of the image (collected with the production storage,
# so the manifest matches): whitenoise serves them from GEMARENA_STATIC_DIR
ENV GEMARENA_STATIC_DIR=/opt/gemarena/static
RUN GEMARENA_VAR_DIR=/tmp/build GEMARENA_PRODUCTION=1 SECRET_KEY=collectstatic-only \
        ALLOWED_HOSTS=build python manage.py collectstatic --noinput -v 0 \
 && rm -rf /tmp/build
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["gunicorn", "config.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "4", \
     "--access-logfile", "-", "--error-logfile", "-", "--forwarded-allow-ips", "*"]
