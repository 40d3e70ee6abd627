#!/bin/sh
# Patroni runs this once, on the node that bootstraps the cluster, with a superuser connection URL.
set -eu
psql "$1" -v ON_ERROR_STOP=1 -c "create database cashloop"
