import type { StarterTemplate } from './starter-template.ts';

/** A transactional receipt with Handlebars merge tags: an order's lines with `{{#each}}`. */

const data = {
  customer: { name: 'Ada Lovelace' },
  order: {
    number: 'A-10423',
    date: '15 March 2026',
    items: [
      { name: 'Notebook, dotted', quantity: 2, total: '$24.00' },
      { name: 'Fountain pen', quantity: 1, total: '$38.00' },
      { name: 'Ink, blue-black', quantity: 3, total: '$21.00' },
    ],
    subtotal: '$83.00',
    shipping: '$5.00',
    total: '$88.00',
  },
  receipt_url: 'https://example.com/orders/A-10423',
};
const subject = 'Your receipt from Paper & Pen';

const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${subject}</title>
<style>
  body { margin: 0; padding: 0; background: #f5f5f4; }
  .card { max-width: 520px; margin: 0 auto; background: #ffffff; border: 1px solid #e7e5e4; border-radius: 8px; }
  .inner { padding: 32px; font-family: Helvetica, Arial, sans-serif; color: #292524; }
  h1 { margin: 0 0 4px; font-size: 22px; }
  .muted { margin: 0 0 24px; font-size: 14px; color: #78716c; }
  .line td { padding: 10px 0; border-bottom: 1px solid #e7e5e4; font-size: 14px; }
  .sum td { padding: 6px 0; font-size: 14px; color: #57534e; }
  .total td { padding: 12px 0 0; font-size: 16px; font-weight: bold; }
  .right { text-align: right; }
  .button { display: inline-block; margin-top: 24px; padding: 10px 20px; border-radius: 6px; background: #292524; color: #ffffff; text-decoration: none; font-size: 14px; }
</style>
</head>
<body>
<div style="display: none; max-height: 0; overflow: hidden; mso-hide: all;">Order {{order.number}}: {{order.total}} paid. Your receipt and order details.</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background: #f5f5f4;">
  <tr>
    <td style="padding: 32px 16px;">
      <table role="presentation" class="card" width="100%" cellpadding="0" cellspacing="0">
        <tr>
          <td class="inner">
            <h1>Thank you, {{customer.name}}</h1>
            <p class="muted">Order {{order.number}} · {{order.date}}</p>
            <table role="presentation" width="100%" cellpadding="0" cellspacing="0">
              {{#each order.items}}
              <tr class="line">
                <td>{{name}} × {{quantity}}</td>
                <td class="right">{{total}}</td>
              </tr>
              {{/each}}
              <tr class="sum"><td>Subtotal</td><td class="right">{{order.subtotal}}</td></tr>
              <tr class="sum"><td>Shipping</td><td class="right">{{order.shipping}}</td></tr>
              <tr class="total"><td>Total</td><td class="right">{{order.total}}</td></tr>
            </table>
            <a class="button" href="{{receipt_url}}">View Your Order</a>
          </td>
        </tr>
      </table>
    </td>
  </tr>
</table>
</body>
</html>
`;

const mjml = `<mjml lang="en">
  <mj-head>
    <mj-title>${subject}</mj-title>
    <mj-preview>Order {{order.number}}: {{order.total}} paid. Your receipt and order details.</mj-preview>
    <mj-attributes>
      <mj-all font-family="Helvetica, Arial, sans-serif" />
      <mj-text font-size="14px" line-height="21px" color="#292524" />
    </mj-attributes>
  </mj-head>
  <mj-body background-color="#f5f5f4" width="520px">
    <mj-section padding="32px 0">
      <mj-column background-color="#ffffff" border="1px solid #e7e5e4" border-radius="8px" padding="16px 8px">
        <mj-text font-size="22px" line-height="28px" font-weight="bold">Thank you, {{customer.name}}</mj-text>
        <mj-text color="#78716c" padding-top="0">Order {{order.number}} · {{order.date}}</mj-text>
        <mj-table role="presentation" font-size="14px" color="#292524">
          {{#each order.items}}
          <tr style="border-bottom: 1px solid #e7e5e4;">
            <td style="padding: 10px 0;">{{name}} × {{quantity}}</td>
            <td style="padding: 10px 0; text-align: right;">{{total}}</td>
          </tr>
          {{/each}}
          <tr><td style="padding: 6px 0; color: #57534e;">Subtotal</td><td style="padding: 6px 0; text-align: right; color: #57534e;">{{order.subtotal}}</td></tr>
          <tr><td style="padding: 6px 0; color: #57534e;">Shipping</td><td style="padding: 6px 0; text-align: right; color: #57534e;">{{order.shipping}}</td></tr>
          <tr><td style="padding: 12px 0 0; font-size: 16px; font-weight: bold;">Total</td><td style="padding: 12px 0 0; text-align: right; font-size: 16px; font-weight: bold;">{{order.total}}</td></tr>
        </mj-table>
        <mj-button href="{{receipt_url}}" background-color="#292524" border-radius="6px" align="left" font-size="14px">View Your Order</mj-button>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>
`;

export const receipt: StarterTemplate[] = [
  { id: 'receipt-html', name: 'Receipt', format: 'html', syntax: 'handlebars', subject, source: html, data },
  { id: 'receipt-mjml', name: 'Receipt', format: 'mjml', syntax: 'handlebars', subject, source: mjml, data },
];
