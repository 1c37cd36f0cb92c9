/**
 * The layout of emails when no layout is stored or chosen: the body on a centred card, the brand's
 * logo above it and its footer below, in the brand's colours. Tables and inline styles only, so it
 * looks the same in every mail client without inlining.
 */
export const BASIC_LAYOUT = `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>{{ subject }}</title>
</head>
<body style="margin:0;padding:0;background:{{ brand.colors.background | default: '#f4f5f7' }};">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:{{ brand.colors.background | default: '#f4f5f7' }};">
<tr><td align="center" style="padding:24px 12px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:600px;">
{% if brand.logoUrl %}<tr><td style="padding:0 0 16px 0;"><img src="{{ brand.logoUrl }}" alt="{{ brand.name }}" height="32" style="display:block;height:32px;border:0;"></td></tr>{% endif %}
<tr><td style="background:#ffffff;border-radius:8px;padding:32px;font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5;color:{{ brand.colors.text | default: '#1f2328' }};">
{{ content }}
</td></tr>
{% if brand.footer %}<tr><td style="padding:16px 8px 0 8px;font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:12px;line-height:1.5;color:#6b7280;text-align:center;">{{ brand.footer }}</td></tr>{% endif %}
</table>
</td></tr>
</table>
</body>
</html>`;
