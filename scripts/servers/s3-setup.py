#!/usr/bin/env python3
"""Prepares a freshly started moto S3 server for Strata's tests.

Usage: s3-setup.py ENDPOINT [--auth] [BUCKET ...]
       s3-setup.py ENDPOINT --replay

Creates the buckets named; with --auth it also creates an IAM user allowed every S3 action,
gives it an access key, and then turns moto's IAM authentication on, so from then on every
request must carry a valid Signature V4 of that key (a wrong key or signature is refused with
InvalidAccessKeyId / SignatureDoesNotMatch, as AWS does). Prints one JSON line:
{"accessKeyID": ..., "secretAccessKey": ...} (test keys of a throw-away loopback server).

--replay asks a restarted server started with MOTO_ENABLE_RECORDING to replay the requests it
recorded before (moto keeps its data in memory only), and prints {}.
"""
import json
import sys
import urllib.request

import boto3


def post(url: str, body: bytes) -> None:
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "text/plain"})
    with urllib.request.urlopen(request, timeout=60) as response:
        response.read()


def main() -> int:
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    endpoint = args[0].rstrip("/")
    if "--replay" in args:
        post(f"{endpoint}/moto-api/recorder/replay-recording", b"")
        print("{}")
        return 0
    auth = "--auth" in args
    buckets = [a for a in args[1:] if a != "--auth"]

    session = boto3.session.Session(aws_access_key_id="setup", aws_secret_access_key="setup",
                                    region_name="us-east-1")
    keys = {"accessKeyID": "strata-test", "secretAccessKey": "strata-test-secret"}
    if auth:
        iam = session.client("iam", endpoint_url=endpoint)
        iam.create_user(UserName="strata-tests")
        iam.put_user_policy(
            UserName="strata-tests", PolicyName="s3-all",
            PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [
                {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName="strata-tests")["AccessKey"]
        keys = {"accessKeyID": key["AccessKeyId"], "secretAccessKey": key["SecretAccessKey"]}

    s3 = session.client("s3", endpoint_url=endpoint)
    for bucket in buckets:
        s3.create_bucket(Bucket=bucket)

    if auth:
        post(f"{endpoint}/moto-api/reset-auth", b"0")

    print(json.dumps(keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
