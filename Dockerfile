# gapsweep image for docker-compose.yml (web, worker, migrate). It cannot be built on the
# development machines (no Docker daemon there), so it is kept plain. The build compiles the
# solver kernels into the image, so a new worker container takes cases at once.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY gapsweep gapsweep
COPY core core
COPY study study
COPY db db
COPY workers workers
COPY web web
COPY accounts accounts
COPY examples examples
RUN pip install --no-cache-dir '.[server]' && gapsweep warmup slider-crank
ENV GAPSWEEP_DATA=/data NUMBA_NUM_THREADS=1
VOLUME /data
EXPOSE 8050
# the web app on gunicorn (docker-compose.yml's web service; worker containers run
# `gapsweep worker`); sign-in is required (gapsweep/web/wsgi.py)
CMD ["gunicorn", "gapsweep.web.wsgi:app", "--bind", "0.0.0.0:8050", "--worker-class", "gthread", "--workers", "2", "--threads", "8", "--no-control-socket"]
