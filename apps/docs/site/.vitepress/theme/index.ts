import type { Theme } from 'vitepress';
import DefaultTheme from 'vitepress/theme';
import LiveBuyFlow from './LiveBuyFlow.vue';
import './style.css';

export default {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    app.component('LiveBuyFlow', LiveBuyFlow);
  },
} satisfies Theme;
