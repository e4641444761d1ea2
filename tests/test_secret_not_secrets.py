"""Classes of values that read random but are no credential (round 13, writer41's lookalikes
studied by class, examples written here): digests their algorithm names, SSH and wallet
public keys, certificates and public key blocks, references to a secret manager, documented
example keys, publishable keys, a JSON Web Key's public members, flags naming a secret."""

from __future__ import annotations

import pytest

from helix.core.secrets import find_secrets, redact_text


@pytest.mark.parametrize("text", [
    # digests named by their algorithm: subresource integrity, go.sum, fingerprints
    '"integrity": "sha512-Qm3vT8kLp2Xr9Zw4Nc7Yb1Hd6Fj0Gs5Ea8Ku2Io3Pl9Mn4Bv7Cx1Zq6Wr8Ty2Ui5'
    'Op0As3Df6Gh9JkL1Zx4Cv7Bn0Mq=="\n',
    "example.org/mod v1.2.3 h1:Zq8Wm3Lp7Kv2Rt9Nb4Xc6Jd1Hf5Gs0Aw3Ey7Ui2Op4As8Df=\n",
    "The server's key fingerprint is SHA256:Kq7Wm2Lp9Zv4Rt8Nb3Xc6Jd1Hf5Gs0Aw7Ey2Ui9Op4\n",
    # SSH public keys (the base64 opens with the key type's name), an extended public key
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKq7Wm2Lp9Zv4Rt8Nb3Xc6Jd1Hf5Gs0Aw7Ey2Ui9Op4 ops@b\n",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDKq7Wm2Lp9Zv4Rt8Nb3Xc6Jd1Hf5Gs0Aw7Ey2Ui9Op4As8 a@b\n",
    # blocks of public material: the body lines are no private key
    "-----BEGIN CERTIFICATE-----\n"
    "MIIDkzCCAnugAwIBAgIUKq7Wm2Lp9Zv4Rt8Nb3Xc6Jd1Hf5wDQYJKoZIhvcNAQEL\n"
    "BQAwWTELMAkGA1UEBhMCVVMxEzARBgNVBAgMCkNhbGlmb3JuaWExFjAUBgNVBAcM\n-----END CERTIFICATE-----\n",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAq7Wm2Lp9Zv4Rt8Nb3Xc6\n"
    "Jd1Hf5Gs0Aw7Ey2Ui9Op4As8Df3Gh6Jk1Lz5Xc8Vb2Nm4Qw7Er0Ty3Ui6Op9As2Df\n-----END PUBLIC KEY-----\n",
    # where a secret manager keeps it: its reference, not the secret
    "DB_PASSWORD=arn:aws:secretsmanager:eu-west-1:210987654321:secret:billing/db-Qw3Er5\n",
    "DB_PASSWORD=op://Platform/billing-db/pw2024\n",
    'password: "@Microsoft.KeyVault(SecretUri=https://kv-b.vault.azure.net/secrets/dbpass2/)"\n',
    "SMTP_PASSWORD=projects/billing-7/secrets/smtp-pass/versions/3\n",
    # documented example keys, publishable keys
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
    "STRIPE_PUBLISHABLE_KEY=pk_live_Qw3Er5Ty7Ui9Op1As3Df5Gh7\n",
    'stripe_key: "pk_test_Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9"\n',
    # a JSON Web Key's public modulus
    '{"kty": "RSA", "e": "AQAB", "n": "q7Wm2Lp9Zv4Rt8Nb3Xc6Jd1Hf5Gs0Aw7Ey2Ui9Op4As8Df3Gh6Jk1"}\n',
    # a flag naming a secret by its ID, a colour
    "aws secretsmanager get-secret-value --secret-id billing/stripe-live\n",
    "secret_color: '#7a3cff'\n",
    # a data URI's payload, a password hash (its algorithm and salt before it)
    "logo = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAIQ7Wm2Lp9Zv4Rt8Nb3Xc6Jd1Hf5G'\n",
    "INSERT INTO users VALUES ('a@b.test',\n"
    "  '$2b$12$Qw3Er5Ty7Ui9Op1As3Df5uGh7Jk9Lz1Xc3Vb5Nm7Qw9Er1Ty3Ui5O');\n",
    # a key its name says is public, age and wallet recipients in bech32
    "[Peer]\nPublicKey = Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7Qw9E=\n",
    "age1q7w2e9r4t1y8u3i6o5p0a9s8d7f6g5h4j3k2l0z9x8c7v6b5n4m3q2w0e\n"
    "age1z9x8c7v6b5n4m3q2w0e7w2e9r4t1y8u3i6o5p0a9s8d7f6g5h4j3k2lq\n",
    # encrypted values: SOPS, ansible-vault
    "db_password: ENC[AES256_GCM,data:Qw3Er5Ty7U=,iv:Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7Qw9Er1Ty3Ui5Op=,"
    "tag:As3Df5Gh7Jk9Lz1Xc3Vb5N==,type:str]\n",
    "db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6162636465666768696a6b6c6d6e6f70"
    "7172737475767778797a303132333435\n",
    # base64 of readable text (a fixture), of a placeholder; an alphabet
    'BODY = "eyJvcmRlciI6ICJvcmRfNDIiLCAiYW1vdW50IjogMTk5OSwgImN1cnJlbmN5IjogImV1ciJ9"\n',
    "data:\n  password: Y2hhbmdlbWU=\n",
    'const alphabet32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"\n',
    # a fingerprint's hex pairs; a digest its name says is one
    "    MD5:42:17:0b:d3:5e:a8:61:f0:2c:97:4d:b6:e1:08:7a:c5\n",
    'EMPTY_MD5 = "0cc175b9c0f1b6a831c399e269772661"\n',
    # placeholders: a filler body, an ellipsis, a dummy's word, a default user:user
    "Paste it here: `ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`\n",
    '[openai]\napi_key = "sk-..."\n',
    'monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")\n',
    'assert mask("ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE") == "ghp_****"\n',
    "DATABASE_URL=postgres://app:app@localhost:5432/app_test\n",
    # the name of a secret kept elsewhere; a signature header's parameters
    "auth:\n  existingSecret: grafana-admin\n",
    "    Acme-Signature: t=1700000000,v1=5f1e9d3c7b2a8e4f6a0c2e4f6a8b0d2f\n",
    # documented examples (jwt.io's token, RFC 7636's verifier, Stripe's docs key)
    "`eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaW"
    "F0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c`\n",
    "const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';\n",
    "Stripe's docs use `sk_test_4eC39HqLyjWDarjtT1zdp7dc` in examples.\n",
])
def test_public_or_referenced_values_are_not_found(text: str) -> None:
    assert find_secrets(text) == [], redact_text(text)[0]


def test_a_private_key_next_to_a_certificate_is_still_found() -> None:
    body = "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDq7Wm2Lp9Zv4Rt8N"
    text = ("-----BEGIN CERTIFICATE-----\nMIIDkzCCAnugAwIBAgIUKq7Wm2Lp9Zv4Rt8Nb3Xc6Jd1Hf5wDQYJKoZ"
            "IhvcNAQEL\n-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\n" + body
            + "\n-----END PRIVATE KEY-----\n")
    assert body not in redact_text(text)[0]


@pytest.mark.parametrize(("text", "value"), [
    # base64 of a credential (Basic auth, a k8s Secret's password) is no readable text
    ("Authorization: Basic YWRtaW46UXczRXI1VHk3VWk5", "YWRtaW46UXczRXI1VHk3VWk5"),
    ("data:\n  password: UXczRXI1VHk3VWk5T3Ax\n", "UXczRXI1VHk3VWk5T3Ax"),
    # a real password next to its user in a URL
    ("DATABASE_URL=postgres://app:Qw3Er5Ty7Ui9@db.internal:5432/app\n", "Qw3Er5Ty7Ui9"),
])
def test_near_cases_are_still_found(text: str, value: str) -> None:
    assert value not in redact_text(text)[0]
