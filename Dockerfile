FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
RUN apt-get update && apt-get install -y --no-install-recommends build-essential cmake && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
# The commit the image is built from, for the runs' fingerprints (docs/conflict_and_judges.md, section 8).
ARG GIT_COMMIT=""
ENV EVALPLATFORM_GIT_COMMIT=$GIT_COMMIT
EXPOSE 8000
CMD ["gunicorn", "evalplatform.wsgi", "--bind", "0.0.0.0:8000"]
