FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
RUN apt-get update && apt-get install -y --no-install-recommends build-essential cmake && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.txt .
# llama-cpp-python for a portable AVX2 baseline: a -march=native build can die on hosts that report AMX / AVX-512
# they cannot run (see the Makefile).
ENV CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
# The commit the image is built from, for the runs' fingerprints (docs/conflict_and_judges.md, section 8).
ARG GIT_COMMIT=""
ENV EVALPLATFORM_GIT_COMMIT=$GIT_COMMIT
EXPOSE 8000
CMD ["gunicorn", "evalplatform.wsgi", "--bind", "0.0.0.0:8000"]
