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
])
def test_public_or_referenced_values_are_not_found(text: str) -> None:
    assert find_secrets(text) == [], redact_text(text)[0]


def test_a_private_key_next_to_a_certificate_is_still_found() -> None:
    body = "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDq7Wm2Lp9Zv4Rt8N"
    text = ("-----BEGIN CERTIFICATE-----\nMIIDkzCCAnugAwIBAgIUKq7Wm2Lp9Zv4Rt8Nb3Xc6Jd1Hf5wDQYJKoZ"
            "IhvcNAQEL\n-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\n" + body
            + "\n-----END PRIVATE KEY-----\n")
    assert body not in redact_text(text)[0]
